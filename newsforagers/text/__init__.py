"""The text state of a forager: PrTFIDF (Joachims 1997) over PDDP clusters (Boley 1998).

:class:`StateEncoder` turns page texts into the k = 50 dimensional state vectors of the
news-forager papers; :func:`pddp` is the clustering it is built on, and
:mod:`newsforagers.text.prtfidf` the classifier's matrix algebra.
"""

from newsforagers.text.encoder import StateEncoder
from newsforagers.text.pddp import pddp

__all__ = ["StateEncoder", "pddp"]
