from citeproof.cli import main

main()
