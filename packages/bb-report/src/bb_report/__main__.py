from bb_report.cli import main

main()
