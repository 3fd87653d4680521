from omerender.cli import run

run()
