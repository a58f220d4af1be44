"""This machine: files written whole, TCP ports, children that die with their parent,
idle CPUs that wake quickly."""
