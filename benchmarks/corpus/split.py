"""The fixed rule that splits libraries new to the corpus into a development half and a sealed half.

Issue 23 asks whether the static pass is right on code its rules were never tuned on. So the
new libraries were split before anyone read their code, by a rule fixed in advance: a library
is **sealed** when the first byte of the SHA-256 of its PyPI name (as listed, lower case) is
odd. Sealed libraries are labelled by reading the code, never by looking at the pass's
findings there, and are scored once, at the end of a round (``real_world.py --sealed``).
Every other new library is development: its labels may be read by whoever changes the rules.
The libraries already in the corpus before issue 23 are development, whatever the hash says
(the rules were tuned on them). A library added later goes through the same rule.

A sealed library whose code or findings came to inform a rule moves to development for good
(``MOVED_TO_DEVELOPMENT``, with the reason). On 4 December 2026 a fixed share of the sealed half
moved the same way, chosen by a second rule before any of its findings were read
(:func:`moved_by_the_second_rule`), so that the wrong findings of code nobody tuned on could
inform rules while the rest stays sealed (on 6 December 2026 a third rule moved another share,
:func:`moved_by_the_third_rule`, for the same reason): the hash still seals its name
(``sealed_by_the_rule``), but ``is_sealed`` no longer does, so its labels live in labels.tsv
and the default run checks it.
"""

from __future__ import annotations

import hashlib

ISSUE_23_LIBRARIES: tuple[str, ...] = (
    "e3nn-jax", "jax-dataclasses", "jaxlie", "dynamiqs", "jwave", "exojax", "jaxoplanet", "cryojax",
    "galax", "coordinax", "jinns", "jaxgcrl", "jaxatari", "gfnx", "laplax", "efax", "jax-galsim",
    "jaxspec", "cuthbert", "jax-privacy", "easydel", "fjformer", "genjax", "google-metrax", "kheperax",
    "evorl-jax", "ludax", "jaxued", "equimo", "inox", "linox", "coreax", "geometric-kernels", "jax-fdm",
    "exponax", "apebench", "hj-reachability", "jaxdecomp", "jaxkan", "klujax", "jax-finufft", "jaxpm",
    "navix", "jaxwavelets",
)
"""The libraries issue 23 lists, in its order and spelling: the names the rule was fixed on."""


MOVED_TO_DEVELOPMENT: dict[str, str] = {
    "jax-md": "its sealed findings were read after the sealed score of 3 December 2026 and inform rules in the next round",
    "jax-galsim": "its sealed findings were read after the sealed score of 3 December 2026 and inform rules in the next round",
    "dm-haiku": "its code was read (haiku's hk.transform(f).apply, issue 23's pattern 5) before it was sealed",
    "inox": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "coreax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "geometric-kernels": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jax-finufft": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "flashbax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "mujoco-mjx": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "netket": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "flowmc": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxquantum": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "trax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "colabdesign": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "snnax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "orbax-checkpoint": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "tjax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "haliax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "playground": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxarc": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jax-neural-operators": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "sedpy-jax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "apax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "phyjax2d": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "sgmcmcjax": "moved by a fixed rule (second byte of the SHA-256 of its name divisible by 3) on 4 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "distrax": "its sealed findings were read after the sealed score of 4 December 2026 (12:56 UTC) to judge the 8 it left unjudged, and they informed a rule (an arm of an if/elif on the loop variable runs in one iteration)",
    "vbjax": "its 2 wrong default findings (crosscoder.py make_loss, two tests on differently built receivers) were read after the sealed score of 4 December 2026 and informed a rule (a test builds what it passes: the statements it depends on count as its arguments)",
    "rockpool": "its wrong default finding (autoencoder/learn.py:122, a closure over data of another shape per cluster) was read after the sealed score of 4 December 2026",
    "folx": "its 2 wrong default findings were read after the sealed score of 4 December 2026 and informed rules (a lambda's default reading the loop variable it shadows; an `if flag:` arm over `[False, True]` runs in one iteration)",
    "jaxtronomy": "its 3 wrong default findings were read after the sealed score of 4 December 2026 and informed a rule (a static argument that changes on each iteration is a new cache key whatever is hoisted)",
    "jsmfsb": "its wrong default finding (sim.py:54) was read after the sealed score of 4 December 2026 and run: jax compiled the scan again on every call (5 in 5), so its hand label was fixed to bug",
    "jax-scalify": "picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of its first hex digit, not of its first byte), labelled blind and scored once with the round, and its findings read before the mistake was seen: it stays development",
    "jaxgw": "picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of its first hex digit, not of its first byte), labelled blind and scored once with the round, and its findings read before the mistake was seen: it stays development",
    "jaxnuts": "picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of its first hex digit, not of its first byte), labelled blind and scored once with the round, and its findings read before the mistake was seen: it stays development",
    "jaxqualin": "picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of its first hex digit, not of its first byte), labelled blind and scored once with the round, and its findings read before the mistake was seen: it stays development",
    "mujax": "picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of its first hex digit, not of its first byte), labelled blind and scored once with the round, and its findings read before the mistake was seen: it stays development",
    "rema-jax": "picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of its first hex digit, not of its first byte), labelled blind and scored once with the round, and its findings read before the mistake was seen: it stays development",
    "tbats-jax": "picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of its first hex digit, not of its first byte), labelled blind and scored once with the round, and its findings read before the mistake was seen: it stays development",
    "healjax": "its 7 wrong default findings (tests.py, JC102, all labelled fine) were read after the sealed score of 5 December 2026 and informed a rule (a wrapper called on an array whose size the loop changes is another program on each pass)",
    "jaxgcrl": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "laplax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "genjax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "ludax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jax-fdm": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "apebench": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxdecomp": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "mctx": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "oryx": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "sax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "dm-acme": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "recurrentgemma": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "probdiffeq": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "evofr": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "gemma": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxmat": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxdp": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "dsps": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxampler": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "feax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxboost": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "diffusionjax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "pyhf": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxonnxruntime": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "evox": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jax2onnx": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "bijx": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "chemtrain": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "xarray-jax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "mlip": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxtorch": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "amjax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "cbfjax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxion": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxqtl": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jaxmore": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "signax": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "exoplanet-core": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "timesfm": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "candl-like": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "jqmc": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
    "desc-opt": "moved by a third fixed rule (third byte of the SHA-256 of its name divisible by 3) on 6 December 2026, before its findings were read, so that its wrong findings may inform rules",
}
"""Libraries the rule sealed that moved to development, and why (issue 23: a library whose findings
informed a rule moves to development). Their names stay sealed by the hash; they are not sealed now."""


def sealed_by_the_rule(name: str) -> bool:
    """Whether the fixed hash rule seals the library ``name`` (its PyPI name as listed): the first byte is odd."""
    return hashlib.sha256(name.lower().encode()).digest()[0] % 2 == 1


def is_sealed(name: str) -> bool:
    """Whether the library ``name`` belongs to the sealed half: sealed by the rule and not moved to development since."""
    return sealed_by_the_rule(name) and name.lower() not in MOVED_TO_DEVELOPMENT


def moved_by_the_second_rule(name: str) -> bool:
    """Whether the second rule (4 December 2026) moved the sealed library ``name`` to development: the
    second byte of the SHA-256 of its name is divisible by 3 (about a third of the sealed half)."""
    return hashlib.sha256(name.lower().encode()).digest()[1] % 3 == 0


def moved_by_the_third_rule(name: str) -> bool:
    """Whether the third rule (6 December 2026) moved the sealed library ``name`` to development: the third byte
    of the SHA-256 of its name is divisible by 3 (about a third of what was sealed then, the second rule's
    moves and later libraries alike), chosen before any of their findings were read."""
    return hashlib.sha256(name.lower().encode()).digest()[2] % 3 == 0
