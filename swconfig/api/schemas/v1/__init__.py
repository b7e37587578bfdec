"""JSON schemas of request bodies, one module per resource.

The API validates each body against these before it reaches a controller's
logic, and the OpenAPI document is built from the same schemas.
"""
