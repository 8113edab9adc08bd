"""Use qagen's fold builder on your own embeddings, without the rest of qagen.

Here the "corpus" is made up on the spot: sections about six subjects (three about the kitchen,
three about computer networks), grouped seven to a page. Any embeddings, topic labels and page
ids will do; this script makes them with scikit-learn (TF-IDF + SVD + k-means) in a second.

    python examples/folds_standalone.py
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

from qagen.folds import FoldBuilder

THEMES = {
    "kitchen": "kitchen cook recipe cooking chef food meal heat minutes serve",
    "network": "network computer server address protocol configure client device ip connection",
}
SUBJECTS = {
    "baking": "oven flour dough yeast bread loaf knead bake crust rise",
    "knives": "knife blade sharpen steel edge chop slice whetstone handle honing",
    "soups": "soup broth stock simmer onion carrot ladle pot season vegetables",
    "routing": "router packet route gateway hop table subnet forwarding prefix bgp",
    "wifi": "wifi wireless channel antenna signal access point ssid band interference",
    "dns": "dns domain resolver record zone lookup nameserver cache ttl query",
}


def make_sections(rng: np.random.Generator, per_subject: int = 40) -> tuple[list[str], list[str]]:
    """Sections of 12 random words from one subject, its theme and common filler; and their subject."""
    filler = ["the", "a", "of", "to", "and", "with", "for", "how", "when", "your", "you", "this", "is"]
    texts, subjects = [], []
    for i, (name, words) in enumerate(SUBJECTS.items()):
        vocab = words.split() + list(THEMES.values())[i // 3].split()
        for _ in range(per_subject):
            texts.append(" ".join(rng.choice(vocab + filler, size=12)))
            subjects.append(name)
    return texts, subjects


def main() -> None:
    rng = np.random.default_rng(7)
    texts, subjects = make_sections(rng)
    pages = [f"page-{i // 7:03d}" for i in range(len(texts))]  # 7 consecutive sections per page

    tfidf = TfidfVectorizer().fit_transform(texts)
    embeddings = TruncatedSVD(n_components=8, random_state=0).fit_transform(tfidf)
    topics = KMeans(n_clusters=6, n_init=10, random_state=0).fit_predict(embeddings)

    builder = FoldBuilder(test_size=0.25, min_fold_ratio=0.5, samples_total=24, seed=0)
    builder.fit(embeddings, topics, pages)

    m = builder.metrics_
    print(f"chosen: {m['distance']}/{m['linkage']} ({m['n_clusters']} clusters), score {m['score']:.3f}")
    for fold in (1, 2):
        members = sorted({s for s, t in zip(subjects, topics, strict=True) if builder.topic_folds_[int(t)] == fold})
        f = m["folds"][str(fold)]
        print(
            f"fold {fold}: {', '.join(members)} | {f['sections']} sections, {f['units']} pages, "
            f"validation {f['validation']['sections']} / test {f['test']['sections']}, sampled {f['sampled']}"
        )
    print(f"fold/topic distance ratio: {m['fold_topic_distance_ratio']:.1f}x")
    print(f"small fold ratio: {m['small_fold_ratio']:.2f}, valid sections: {m['valid_sections_pct']:.1f}%")
    print(f"pages removed for holding both folds: {len(builder.conflict_units_)}")
    first = builder.assignments_[0]
    print(f"section 0: fold {first.fold}, {first.split}, {first.status}, sampled={first.sampled}")


if __name__ == "__main__":
    main()
