from kgprofiles.cli import app

app(prog_name="kgprofiles")
