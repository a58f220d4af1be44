"""This machine: files written whole, TCP ports, children that die with their parent."""
