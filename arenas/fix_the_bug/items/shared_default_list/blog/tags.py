"""Tagging of articles."""


def add_tag(tag, tags=[]):
    """Return `tags` with `tag` appended, without duplicates."""
    if tag not in tags:
        tags.append(tag)
    return tags


def tag_article(article, *new_tags):
    current = article.get("tags")
    for tag in new_tags:
        current = add_tag(tag) if current is None else add_tag(tag, current)
    article["tags"] = current
    return article
