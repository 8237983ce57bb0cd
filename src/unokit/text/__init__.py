"""Presentation: the events of a game as lines of text for a viewer
(:mod:`unokit.text.transcript`), shared by the command line, the terminal game and the web
client.
"""
