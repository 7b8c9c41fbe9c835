"""newsforagers: a self-organising colony of Scrapy crawlers that finds breaking news.

The learning core (:mod:`newsforagers.learning`) implements the news-forager papers of
Palotai, Farkas, Mandusitz and Lőrincz and the energy model of Mouton & Marteau; the text
state (:mod:`newsforagers.text`) implements PDDP clustering (Boley 1998) and the PrTFIDF
classifier (Joachims 1997).
"""

__version__ = "0.1.0"
