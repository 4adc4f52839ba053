from bugbout.cli import main

main()
