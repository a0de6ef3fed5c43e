"""Free-text facts and counter-facts about a highlighted entity (the Cheap Facts design, designs/cheap-facts.yaml):
RTE texts in as the design's items, the statements out as RTE-style T-H pairs with the paper's tables."""

from django.apps import AppConfig


class FactsConfig(AppConfig):
    name = "facts"
    verbose_name = "Facts and counter-facts"
