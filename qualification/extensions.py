"""What other apps plug into the screening test (see core.registry).

- DESIGN_TESTS: under "design", how a test of any design file (QualificationTest.design_source: a Potato
  project's training round) is shown, read and graded. The designs app registers it (designs.screening):
  qualification sits below designs and cannot import it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from core.registry import Registry

if TYPE_CHECKING:
    from qualification.models import QualificationTest, TestItem


class DesignTests(Protocol):
    def page_context(self, test: QualificationTest, items: Sequence[TestItem]) -> dict[str, Any]:
        """What designs/_task.html needs to show the items with the design's schemes."""

    def read(self, test: QualificationTest, items: Sequence[TestItem], form: Mapping[str, Any]) -> dict[str, Any]:
        """{"item-<pk>": {scheme: answer}} of the items answered in the posted form."""

    def right(self, given: Mapping[str, Any], key: Mapping[str, Any]) -> bool:
        """Whether an item's answers hold every known answer of it."""

    def shown(self, test: QualificationTest, answers: Mapping[str, Any] | None) -> str:
        """Answers as a person reads them: "scheme: answer; ..."."""


DESIGN_TESTS: Registry[DesignTests] = Registry("design screening test")
