"""Reports of a run or a sweep: tables and plots in Markdown and HTML."""
