#!/usr/bin/env python3
"""One top-level X11 window for the focus tests: x11_window.py NAME [--no-pid].

Sets WM_NAME and WM_CLASS to NAME and, unless --no-pid, _NET_WM_PID (without it the pid is
only known to XRes, from the connection). Prints "ready WINDOW-ID" once mapped, then handles
events until killed or the display goes away."""
import os
import sys

from Xlib import X, Xatom, display

name = sys.argv[1]
d = display.Display()
screen = d.screen()
window = screen.root.create_window(
    0, 0, 200, 100, 0, screen.root_depth, X.InputOutput, X.CopyFromParent,
    background_pixel=screen.white_pixel, event_mask=X.StructureNotifyMask)
window.set_wm_name(name)
window.set_wm_class(name, name)
if "--no-pid" not in sys.argv:
    window.change_property(d.intern_atom("_NET_WM_PID"), Xatom.CARDINAL, 32, [os.getpid()])
window.map()
d.sync()
while d.next_event().type != X.MapNotify:
    pass
print("ready", window.id, flush=True)
try:
    while True:
        d.next_event()
except Exception:
    sys.exit(0)
