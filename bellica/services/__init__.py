"""The service layer: what a front end (the CLI's commands, the web app, the demos) asks of a
campaign, in functions that open it, ask its ruleset and return plain data or write files.

Front ends import services, never each other (the layering in pyproject.toml); services import
the engine, etl and web_maps, which never import services.
"""
