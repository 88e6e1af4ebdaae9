"""Session metrics: loop guard, convergence, influence. Must not import Qt."""
