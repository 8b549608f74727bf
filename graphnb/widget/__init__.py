"""graphnb's visual builder: a Jupyter widget to draw, bind, run and export graphs.

Needs the ``widget`` extra (``pip install 'graphnb[widget]'``). Importing :mod:`graphnb`
never imports this package.
"""

from __future__ import annotations

from .builder import Builder

__all__ = ["Builder"]
