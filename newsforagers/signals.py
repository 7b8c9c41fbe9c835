"""Signals of newsforagers (sent on the forager's own crawler's ``SignalManager``).

Handlers are held weakly by Scrapy: connect bound methods, or pass ``weak=False``.
"""

#: The reinforcing agent judged one send. Arguments: ``forager`` (id), ``url``,
#: ``origin`` (where the forager's mind made the send, as it said: the papers' forager's
#: ``(path, step)``, the scheduled forager's listing visit number), ``profit`` (the
#: immediate profit: +99/+100 for a reward, −1 otherwise), ``rewarded`` (bool), ``score``
#: (the forager's score after the send), ``relevance`` (the document's relevance to the topic in
#: the topical mode; None without a topic or when the send was not read), ``on_topic`` (whether
#: that relevance reaches the output's threshold as the colony learned it; None without one).
reward_received = object()

#: A forager finished a path. Arguments: ``forager``, ``path`` (its number), ``steps``,
#: ``profit`` (the path's total).
path_finished = object()

#: A forager's step is complete (its probes are in, its TD step taken). Arguments:
#: ``forager``, ``url`` (the step page), ``profit`` (the step's immediate profit so far),
#: ``value`` (``w·s`` of the step page, 0 while its state is unknown), ``relevance`` (the step
#: page's relevance to the topic in the topical mode, else None).
step_finished = object()
