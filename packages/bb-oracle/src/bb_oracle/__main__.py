from bb_oracle.cli import main

main()
