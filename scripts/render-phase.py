"""Renders one phase of a `random` set of the shared renderer (../shared/render,
unchanged): the table frames of camera 1, its sequence seq01, or its ChArUco
views, so that a set's table photos come first (issue 15's measure seeds).

usage: RENDER_OUT=/work/renders python scripts/render-phase.py frames|seq|charuco SEED [FRAMES] [SPP]
Writes RENDER_OUT/random-SEED/cam01 or .../seq01 (default RENDER_OUT /tmp/renders).
Needs the renderer's venv (its README: mitsuba 3.9.1, opencv-contrib, numpy, pillow)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "render"))
import render
from plans import random_set

if len(sys.argv) < 3 or sys.argv[1] not in ("frames", "seq", "charuco"):
    sys.exit(__doc__)
phase, seed = sys.argv[1], int(sys.argv[2])
frames = int(sys.argv[3]) if len(sys.argv) > 3 else 4
spp = int(sys.argv[4]) if len(sys.argv) > 4 else None
S = dict(random_set(seed, 1, frames))
S["out"] = os.path.join(os.environ.get("RENDER_OUT", "/tmp/renders"), f"random-{seed}")
for cd in S["cameras"]:
    if phase != "charuco":
        cd["charuco"] = 0
    if phase != "frames":
        cd["frames"] = 0
if phase != "seq":
    S["sequences"] = []
render.run_set(S, None, spp, False)
