# The playground's interface, in MicroPython on the main thread (app/main.py starts it). These
# modules only wire events and set what the worker (app/worker.py) built; no chunking here.
