/* bin2c - write stdin as a C array: bin2c NAME < file > file.c
 * Defines `const unsigned char NAME[]` (NUL-terminated) and `NAME_len`. */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: bin2c NAME < input > output.c\n", stderr);
        return 2;
    }
    printf("const unsigned char %s[] = {\n", argv[1]);
    unsigned long n = 0;
    int c;
    while ((c = getchar()) != EOF) {
        printf("%d,%s", c, ++n % 20 ? "" : "\n");
    }
    printf("0};\nconst unsigned long %s_len = %lu;\n", argv[1], n);
    return ferror(stdin) ? 1 : 0;
}
