"""Recall and precision of the static pass on the labelled corpus (benchmarks/corpus/labels.tsv).

    python benchmarks/corpus_recall.py CACHE [LIBRARY ...]

CACHE holds the unpacked source distributions (``NAME-VERSION/``, as the corpus
branch's downloads leave them). A finding on a line a label covers is a true positive
(label ``bug``) or a false positive (label ``fine``); a ``bug`` label with no finding is
a false negative; findings on unlabelled lines are listed to be judged by hand.
"""

import csv
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from jitcheck.lint import config as config_module
from jitcheck.lint.runner import Options, run
CACHE = Path(sys.argv[1])
labels = defaultdict(list)
with open(ROOT / "benchmarks" / "corpus" / "labels.tsv") as fh:
    for row in csv.DictReader(fh, delimiter="\t"):
        labels[(row["library"], row["version"])].append(row)
only = sys.argv[2:]
tot = defaultdict(int)
details = []
for (lib, ver), rows in sorted(labels.items()):
    if only and lib not in only: continue
    cands = [CACHE / f"{lib}-{ver}", CACHE / f"{lib.replace('-', '_')}-{ver}"]
    root = next(c for c in cands if c.exists())
    cfg = config_module.load(root)
    t = time.time()
    rep = run([root], cfg, Options(jobs=2, use_cache=False), root)
    found = defaultdict(list)
    for f in rep.findings:
        rel = str((root / f.path).resolve().relative_to(root.resolve())) if not Path(f.path).is_absolute() else str(Path(f.path).relative_to(root))
        found[rel].append((f.line, f.code))
    c = defaultdict(int)
    matched = set()
    for r in rows:
        hits = [(l, code) for l, code in found.get(r["path"], []) if int(r["line"]) <= l <= int(r["end_line"])]
        for h in hits: matched.add((r["path"], h))
        if r["label"] == "bug":
            c["tp" if hits else "fn"] += 1
            if not hits: details.append(f"FN {lib} {r['path']}:{r['line']} {r['kind']} {r['reason'][:110]}")
        else:
            c["fp" if hits else "tn"] += 1
            if hits: details.append(f"FP {lib} {r['path']}:{r['line']} {hits} {r['kind']} {r['reason'][:110]}")
    unl = [(p, h) for p, hs in found.items() for h in hs if (p, h) not in matched]
    for p, h in unl: details.append(f"UNLABELLED {lib} {p}:{h[0]} {h[1]}")
    c["unlabelled"] = len(unl)
    for k, v in c.items(): tot[k] += v
    print(f"{lib:10} tp={c['tp']} fn={c['fn']} fp={c['fp']} tn={c['tn']} unlabelled={c['unlabelled']} files={rep.files} {time.time()-t:.1f}s", flush=True)
tp, fn, fp = tot["tp"], tot["fn"], tot["fp"]
print(f"TOTAL tp={tp} fn={fn} fp={fp} tn={tot['tn']} unlabelled={tot['unlabelled']} recall={tp/max(1,tp+fn):.3f} precision(labelled)={tp/max(1,tp+fp):.3f}")
print("\n".join(details))
