"""g5net's gem5 components, composed the way gem5's standard library composes
its own: one concrete class per file, each wiring itself in through the board's
public getters. Imported only by gem5's Python (`m5`, `gem5`, standard library).
"""
