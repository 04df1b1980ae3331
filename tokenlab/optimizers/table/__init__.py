"""The table family: CSV, TSV, `;`-separated records, and aligned tables as psql prints them.

    optimizer.py   header, a census per column, the first and the anomalous rows
    aligned.py     aligned tables (`---+---` rule, `|` columns, `(N rows)`), also found
                   inside YAML by the YAML family
"""
