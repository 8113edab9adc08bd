"""The build's stages by name, in order: the one list the CLI, the report and the benchmarks read.

The stages themselves are declared in :data:`qagen.pipeline.STAGES` (which imports every stage's
code); this module stays import-free so that ``qagen --help`` does not pay for them. A test holds
the two together.
"""

STAGE_NAMES: tuple[str, ...] = ("parse", "pages", "embed", "topics", "folds", "generate", "filter", "splits", "report")
