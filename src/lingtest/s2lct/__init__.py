"""S2LCT: capability-based test generation (Yang et al.)"""
