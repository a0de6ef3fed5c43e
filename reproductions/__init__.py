"""Three papers' datasets made again from the shipped design files, and their numbers reported as the papers
report them: Balanced COPA's validation (copa: designs/bcopa.yaml), Cheap Facts' facts and counter-facts over RTE
paragraphs (facts, rte: designs/cheap-facts.yaml) and TimeTravel's story rewriting with its human evaluation
(stories, story_evaluation: designs/timetravel*.yaml). Each has its command (`manage.py copa`, `facts`,
`stories`) and its steps on a project's page (project_steps). No models: their batches, items and answers are the
design engine's."""
