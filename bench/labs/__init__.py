"""Labs: the experiments behind a design choice, rerunnable (they import the production
code they measure, never a copy of it)."""
