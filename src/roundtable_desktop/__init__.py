"""roundtable_desktop: multi-agent LLM sessions whose every piece of state the app owns."""

__version__ = "0.1.0"
