"""Reading many runs back: a DataFrame, the long table, collected tables, expectations."""
