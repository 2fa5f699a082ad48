from chatterm.cli.main import main

raise SystemExit(main())
