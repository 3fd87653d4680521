from omerender.cli import main

main()
