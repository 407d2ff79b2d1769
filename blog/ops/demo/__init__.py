"""The demo blog, as data, loaded by ``manage.py load_demo`` (:mod:`.loader`): original demo writing
only."""
