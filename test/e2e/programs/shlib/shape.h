struct shape { int w, h; };
int perimeter(const struct shape *s);
int area(const struct shape *s);
