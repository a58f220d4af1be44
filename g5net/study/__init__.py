"""The built-in published studies (studies/): catalog, paper data, findings, figures, report."""
