"""graphnb's version, in one place: the package façade, the command line and the server read it.

Kept apart from the façade so that nothing inside the package imports ``graphnb`` itself.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
