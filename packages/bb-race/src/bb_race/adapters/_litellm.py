"""What LiteLLM needs to know about each model provider: the variables it reads, the
hosts its API lives at, and which providers serve models on the user's own machine.
(LiteLLM's own names, as of LiteLLM 1.110.2.)"""

from __future__ import annotations

#: LiteLLM provider prefix -> the variables that provider reads (LiteLLM's own names).
PROVIDER_ENV: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION"),
    "text-completion-openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE"),
    "gemini": ("GEMINI_API_KEY",),
    "vertex_ai": ("VERTEXAI_PROJECT", "VERTEXAI_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS"),
    "azure": ("AZURE_API_KEY", "AZURE_API_BASE", "AZURE_API_VERSION"),
    "openrouter": ("OPENROUTER_API_KEY", "OPENROUTER_API_BASE"),
    "ollama": ("OLLAMA_API_BASE",),
    "ollama_chat": ("OLLAMA_API_BASE",),
    "lm_studio": ("LM_STUDIO_API_BASE", "LM_STUDIO_API_KEY"),
    "hosted_vllm": ("HOSTED_VLLM_API_BASE", "HOSTED_VLLM_API_KEY"),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY"),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "dashscope": ("DASHSCOPE_API_KEY",),
    "moonshot": ("MOONSHOT_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
}
#: LiteLLM provider prefix -> the hosts its API lives at (without a base URL of one's own).
PROVIDER_HOSTS: dict[str, tuple[str, ...]] = {
    "openai": ("api.openai.com",),
    "text-completion-openai": ("api.openai.com",),
    "anthropic": ("api.anthropic.com",),
    "gemini": ("generativelanguage.googleapis.com",),
    "vertex_ai": ("*.googleapis.com",),
    "openrouter": ("openrouter.ai",),
    "ollama": ("localhost:11434",),
    "ollama_chat": ("localhost:11434",),
    "lm_studio": ("localhost:1234",),
    "together_ai": ("api.together.xyz",),
    "fireworks_ai": ("api.fireworks.ai",),
    "deepseek": ("api.deepseek.com",),
    "mistral": ("api.mistral.ai",),
    "groq": ("api.groq.com",),
    "xai": ("api.x.ai",),
    "dashscope": ("dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"),
    "moonshot": ("api.moonshot.ai", "api.moonshot.cn"),
    "cerebras": ("api.cerebras.ai",),
}
#: Providers that serve a model on the user's own machine: nothing to log in to, and
#: LiteLLM cannot price their models.
LOCAL_PROVIDERS = frozenset({"ollama", "ollama_chat", "lm_studio", "hosted_vllm", "llamafile"})
#: Who serves a model named without a provider prefix, as LiteLLM guesses it.
VENDOR_PROVIDER = {"openai": "openai", "anthropic": "anthropic", "google": "gemini"}


def provider_of(model: str, vendor: str | None) -> str:
    """The LiteLLM provider that will serve *model* (its prefix, else the vendor's)."""
    if "/" in model:
        return model.split("/", 1)[0].lower()
    return VENDOR_PROVIDER.get(vendor or "", "openai")
