"""``manage.py`` commands: load_demo, import/export, backup/restore, rerender, rebuild the
search index. Above the four role packages: may import any of them.
"""
