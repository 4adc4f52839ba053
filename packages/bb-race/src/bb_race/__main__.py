from bb_race.cli import main

main()
