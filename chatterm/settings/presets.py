"""Built-in provider presets, ready to use once a key exists (or, for local servers, once they answer), and the
settings source that lays them beneath everything the user sets.

A provider with an API of its own is spoken to in it (Anthropic's Messages, Gemini's, OpenAI's Responses), since only
there do its models show their reasoning; the others speak chat completions, and those documented to take
`reasoning_effort` (Groq, OpenRouter) say so. The servers with a way of their own to continue an answer (DeepSeek,
llama.cpp, vLLM, Ollama) are named in `server`."""

from __future__ import annotations

from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import PydanticBaseSettingsSource

from chatterm.settings.profile import ProfileSettings

PRESETS: dict[str, ProfileSettings] = {
    "groq": ProfileSettings(
        base_url="https://api.groq.com/openai/v1",
        model="llama-3.3-70b-versatile",
        api_key_env="GROQ_API_KEY",
        reasoning_effort=True,
    ),
    "xai": ProfileSettings(base_url="https://api.x.ai/v1", model="grok-code-fast-1", api_key_env="XAI_API_KEY"),
    "together": ProfileSettings(
        base_url="https://api.together.xyz/v1",
        model="meta-llama/Llama-3.3-70B-Instruct-Turbo-Free",
        api_key_env="TOGETHER_API_KEY",
    ),
    "openai": ProfileSettings(
        base_url="https://api.openai.com/v1", model="gpt-4o-mini", api_key_env="OPENAI_API_KEY", api="responses"
    ),
    "anthropic": ProfileSettings(
        base_url="https://api.anthropic.com/v1",
        model="claude-sonnet-4-5",
        api_key_env="ANTHROPIC_API_KEY",
        api="anthropic",
    ),
    "openrouter": ProfileSettings(
        base_url="https://openrouter.ai/api/v1",
        model="openai/gpt-4o-mini",
        api_key_env="OPENROUTER_API_KEY",
        reasoning_effort=True,
    ),
    "deepseek": ProfileSettings(
        base_url="https://api.deepseek.com/v1",
        model="deepseek-chat",
        api_key_env="DEEPSEEK_API_KEY",
        server="deepseek",
    ),
    "mistral": ProfileSettings(
        base_url="https://api.mistral.ai/v1", model="mistral-small-latest", api_key_env="MISTRAL_API_KEY"
    ),
    "gemini": ProfileSettings(
        base_url="https://generativelanguage.googleapis.com/v1beta",
        model="gemini-2.5-flash",
        api_key_env="GEMINI_API_KEY",
        api="gemini",
    ),
    "cerebras": ProfileSettings(
        base_url="https://api.cerebras.ai/v1", model="llama-3.3-70b", api_key_env="CEREBRAS_API_KEY"
    ),
    "fireworks": ProfileSettings(
        base_url="https://api.fireworks.ai/inference/v1",
        model="accounts/fireworks/models/llama-v3p3-70b-instruct",
        api_key_env="FIREWORKS_API_KEY",
    ),
    "ollama": ProfileSettings(base_url="http://127.0.0.1:11434/v1", model="llama3.2", local=True, server="ollama"),
    "llamacpp": ProfileSettings(base_url="http://127.0.0.1:8080/v1", model="default", local=True, server="llamacpp"),
    "vllm": ProfileSettings(base_url="http://127.0.0.1:8000/v1", model="default", local=True, server="vllm"),
    "lmstudio": ProfileSettings(base_url="http://127.0.0.1:1234/v1", model="default", local=True),
}


class PresetsSource(PydanticBaseSettingsSource):
    """The presets as the lowest settings source. Sources merge table by table, key by key, so a `[profiles.groq]`
    table or a `CHATTERM_PROFILES__GROQ__MODEL` variable changes only the fields it sets."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return (self()["profiles"] if field_name == "profiles" else None), field_name, False

    def __call__(self) -> dict[str, Any]:
        return {"profiles": {name: preset.model_dump() for name, preset in PRESETS.items()}}
