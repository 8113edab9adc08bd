"""A small synthetic corpus with known topics, shared by the topic tests."""

from __future__ import annotations

import numpy as np

THEMES = {
    "cats": "cat kitten purr whiskers feline litter mouse claw",
    "cars": "engine wheel brake fuel gearbox tyre road driver",
    "baking": "oven recipe flour sugar bake dough butter yeast",
    "space": "rocket orbit planet star galaxy moon astronaut launch",
}


def corpus(per_theme: int = 20, seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    """(texts, doc_ids, themes): each theme spread over 3 documents of its own."""
    rng = np.random.default_rng(seed)
    texts, docs, themes = [], [], []
    for theme, words in THEMES.items():
        vocab = words.split()
        for j in range(per_theme):
            texts.append(" ".join(rng.choice(vocab, 12)) + " and the of with")
            docs.append(f"{theme}-doc{j % 3}")
            themes.append(theme)
    return texts, docs, themes
