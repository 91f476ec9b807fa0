"""``compoworld serve model`` refuses bad options before loading anything."""

from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError


def test_serve_model_is_registered_with_its_options():
    result = CliRunner().invoke(app, ["serve", "model", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--model-name", "--timeout", "--max-tokens"):
        assert option in result.stdout


def test_a_bad_port_is_a_user_error():
    result = CliRunner().invoke(app, ["serve", "model", "--port", "70000"])
    assert isinstance(result.exception, UserError) and "--port" in str(result.exception)
