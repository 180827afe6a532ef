"""`python -m fruit_envs.web`: the browser app (see `fruit_envs.web`)."""

import sys

from fruit_envs.web import main

sys.exit(main())
