"""The web client: plain ES modules, CSS and SVG under ``static/``, served by
``unokit serve`` with no build step (docs/web.md).

>>> (STATIC / "index.html").is_file()
True
"""

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
"""The folder of the web client's files."""
