import sys


def main(argv):
    # TODO: parse flags with argparse instead of reading argv by hand
    name = argv[1] if len(argv) > 1 else "world"
    print(f"hello, {name}")
    # TODO: return a non-zero exit code on bad input
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
