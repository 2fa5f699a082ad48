"""Named roles (`[roles.NAME]` in `config.toml`): a system prompt, and optionally the profile, model and parameters a
chat asks with. `--role NAME` (the app, `ask`) or the palette chooses one.

A role's profile and model are used unless the command line names its own; its parameters are the chat's own over
the profile's (`chatterm.net.sampling`), so they hold across a profile switch as any set in the app do.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from chatterm.net.sampling import ChatParams, check


class RoleError(Exception):
    """No role of that name; one line naming the roles there are."""


class RoleSettings(BaseModel):
    """One `[roles.NAME]` table. Unknown keys are refused, as a profile's are."""

    model_config = ConfigDict(extra="forbid")

    system: str
    """The system prompt."""
    profile: str | None = None
    """The profile that answers (default: the one the command line or the app is on)."""
    model: str | None = None
    """The model asked (default: the profile's)."""
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    effort: str | None = None
    """The reasoning effort: `off`, `low`, `medium` or `high`."""

    @field_validator("temperature", "top_p", "max_tokens", "effort")
    @classmethod
    def _parameter(cls, value: Any, info: ValidationInfo) -> Any:
        return check(str(info.field_name), value)

    def params(self) -> ChatParams:
        return ChatParams(self.temperature, self.top_p, self.max_tokens, self.effort)


def find_role(roles: dict[str, RoleSettings], name: str) -> RoleSettings:
    """The role named `name`; a `RoleError` naming those there are when there is none."""
    role = roles.get(name)
    if role is not None:
        return role
    if not roles:
        raise RoleError(f"no role named {name!r}: config.toml has no [roles.NAME] table")
    raise RoleError(f"no role named {name!r} (roles: {', '.join(sorted(roles))})")
