"""What other apps plug into filtering (see core.registry).

- SENTENCE_USES: count(sentence ids) -> how many of the app's rows refer to
  those sentences. An ingest that would replace a document asks it first: a
  document whose sentences are in use is kept (superseded), never deleted
  (the hits app registers its batch items).
"""

from __future__ import annotations

from collections.abc import Callable

from core.registry import Registry

SENTENCE_USES: Registry[Callable[[list[int]], int]] = Registry("sentence use")
