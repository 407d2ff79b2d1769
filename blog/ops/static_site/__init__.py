"""The whole site as static files (`manage.py build_site`) and publishing them (`publish_site`)."""
