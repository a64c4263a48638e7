"""Where hone's progress and log lines go from Python: standard error by default, as for the command line, or a
callable or a `logging.Logger` of yours (in a notebook, standard error of the C++ code does not show in the cell).

>>> import logging
>>> hone.set_progress(logging.getLogger("hone"))      # "point 2 of 4: concurrency 2 ..." at INFO
>>> hone.set_log(lambda line: print(line, end=""))    # the server's "I 2026-... model ... ready"
>>> hone.set_progress(None)                           # back to standard error
"""

from __future__ import annotations

import atexit
import logging
from typing import Callable, Optional, Union

from . import _hone

Target = Optional[Union[Callable[[str], object], logging.Logger]]
_LEVELS = {"V": logging.DEBUG, "I": logging.INFO, "W": logging.WARNING, "E": logging.ERROR}


def set_progress(target: Target) -> None:
    """Progress lines (one per finished step of a command) to ``target(line)``, or ``target.info(line)`` for a
    logger; None: standard error."""
    if isinstance(target, logging.Logger):
        logger = target
        _hone.set_progress_sink(lambda text: [logger.info(l) for l in text.splitlines() if l.strip()])
    elif target is None:
        _hone.set_progress_sink(None)
    else:
        fn = target
        _hone.set_progress_sink(lambda text: [fn(l) for l in text.splitlines() if l.strip()])


def set_log(target: Target) -> None:
    """hone's log lines (the server's, mostly) to ``target(line)``, or to a logger at their level (the line's
    first letter: V, I, W, E); None: standard error."""
    if isinstance(target, logging.Logger):
        logger = target

        def to_logger(line: str) -> None:
            text = line.rstrip("\n")
            logger.log(_LEVELS.get(text[:1], logging.INFO), text)
        _hone.set_log_sink(to_logger)
    else:
        _hone.set_log_sink(target)


@atexit.register
def _restore() -> None:
    # The sinks hold Python callables; they must go before the interpreter does.
    _hone.set_progress_sink(None)
    _hone.set_log_sink(None)
