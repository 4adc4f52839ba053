from bb_mine.cli import main

main()
