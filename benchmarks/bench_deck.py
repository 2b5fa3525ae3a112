"""A 31-slide deck against the same 31 figures exported as 1080p PNGs (publish.export.files, the
export CLI's path), in the same run, with the same look and language.

The deck renders the same pictures from one build per figure (the export builds the screen
figure too, for its other formats); the rest is python-pptx and the speaker notes.
Goal: the deck takes at most 2× the PNG export. Run: python -m benchmarks.bench_deck [--check]
"""

import argparse

from benchmarks.timing import measure, verdict
from figures import SLIDE_SIZES, ordered_ids
from publish import DECK_SIZE, files, make_deck

RATIO = 2.0
LOOK = dict(lang="en", theme="dark")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    ids = ordered_ids()
    width, height = SLIDE_SIZES[DECK_SIZE]
    pngs = measure(lambda: list(files(ids, ["png"], **LOOK, size={"width": width, "height": height})),
                   repeat=args.repeat)  # the warm-up pass starts the kaleido server
    built = []  # the decks measured: the last one's size and failures are reported
    slides = measure(lambda: built.append(make_deck(ids, **LOOK, size=DECK_SIZE)), repeat=args.repeat,
                     warmup=0)
    data, failed = built[-1]
    ratio = slides.median / pngs.median
    print(f"{len(ids)} figures, {width}×{height}; the deck is {len(data) / 1e6:.1f} MB, {1 + len(ids)} slides")
    print(f"{'PNG export':>12}: {pngs}")
    print(f"{'deck':>12}: {slides}   ratio {ratio:.2f}×")
    misses = [f"ratio {ratio:.2f}×"] * (ratio > RATIO) + [f"failed: {'; '.join(failed)}"] * bool(failed)
    verdict(f"deck ≤ {RATIO:g}× the PNG export", misses, args.check)
