from bb_xexam.cli import main

main()
