from bb_judge.cli import main

main()
