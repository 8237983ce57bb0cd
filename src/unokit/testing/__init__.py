"""Tools that check an UNO implementation: the soak (:mod:`unokit.testing.soak`, random
games over random rule sets with invariants after every step) and the scenario runner
(:mod:`unokit.testing.scenario`, the rule scenarios of ``SCENARIOS.md``).

They ship with the package so that another implementation, or a change to this one, can be
checked the same way.
"""
