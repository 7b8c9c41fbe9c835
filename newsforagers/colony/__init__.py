"""Running a colony: this process's view of it (:mod:`newsforagers.colony.local`, which joins its
parts: :mod:`~newsforagers.colony.membership`, :mod:`~newsforagers.colony.spawning`,
:mod:`~newsforagers.colony.record`, :mod:`~newsforagers.colony.checkpoint`,
:mod:`~newsforagers.colony.feed`), the spawners that start its foragers
(:mod:`~newsforagers.colony.spawner`, :mod:`~newsforagers.colony.scrapyd`), its shared per-host
budget (:mod:`~newsforagers.colony.throttle`), shared downloads
(:mod:`~newsforagers.colony.fetches`) and what ``newsforagers status`` reads of it
(:mod:`~newsforagers.colony.status`, which imports no Scrapy). Import from the modules: the
package imports none of them, so that reading a colony's record does not load the crawler."""
